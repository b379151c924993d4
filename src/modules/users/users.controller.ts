import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { CurrentUserService } from './current-user.service';
import { CurrentUserDto } from './dto/current-user.dto';

@ApiTags('users')
@ApiBearerAuth()
@Controller()
export class UsersController {
  constructor(private readonly currentUser: CurrentUserService) {}

  // Integrations call it to test a key, so a key limited to some projects may too (PostHog exempts it the same way);
  // the reply then shows only those projects.
  @Get('api/users/:uuid')
  @PersonalKeyAuth('user:read', { servesRestrictedKeys: true })
  @ApiOkResponse({ type: CurrentUserDto })
  retrieve(@CurrentUser() principal: UserPrincipal, @Param('uuid') uuid: string) {
    if (uuid !== '@me' && uuid !== principal.user.uuid) {
      throw ApiError.permissionDenied("As a non-staff user you're only allowed to access the `@me` user instance.");
    }
    return this.currentUser.describe(principal);
  }

  /** Deprecated since 2021-04-05 (PostHog's deprecation date): same body, flagged with RFC 9745 headers. */
  @Get('api/user')
  @PersonalKeyAuth('user:read', { servesRestrictedKeys: true })
  @Header('Deprecation', '@1617580800')
  @Header('Link', '</api/users/@me/>; rel="successor-version"')
  @ApiOkResponse({ type: CurrentUserDto, description: 'Deprecated: use /api/users/@me/.' })
  legacy(@CurrentUser() principal: UserPrincipal) {
    return this.currentUser.describe(principal);
  }
}
