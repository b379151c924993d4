import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import { PersonalApiKeyPageDto } from './dto/personal-api-key.dto';
import { PersonalApiKeysService } from './personal-api-keys.service';

@ApiTags('personal_api_keys')
@ApiBearerAuth()
@Controller('api/personal_api_keys')
export class PersonalApiKeysController {
  constructor(private readonly keys: PersonalApiKeysService) {}

  /** The caller's keys, masked: secrets are never readable after creation. */
  @Get()
  @PersonalKeyAuth('user:read')
  @ApiOkResponse({ type: PersonalApiKeyPageDto })
  list(@CurrentUser() principal: UserPrincipal, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.keys.pageForUser(principal.user.id, parsePageRequest(query), url);
  }
}
