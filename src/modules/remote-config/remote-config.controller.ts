import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PublicRoute } from '../../common/auth/auth.decorator';
import { PublicSdkRoute } from '../../common/http/public-route';
import { remoteConfigScript } from '../decide/remote-config-json';
import { RemoteConfigService } from './remote-config.service';

const CONFIG_ROUTE = { decodePayload: false, cors: true };

/** posthog-js fetches these at init: first the script, then the JSON if the script did not register one. */
@ApiTags('ingestion')
@Controller('array/:token')
export class RemoteConfigController {
  constructor(private readonly remoteConfig: RemoteConfigService) {}

  @Get('config')
  @PublicRoute()
  @PublicSdkRoute(CONFIG_ROUTE)
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOkResponse({ description: 'Remote config for posthog-js' })
  config(@Param('token') token: string) {
    return this.remoteConfig.forToken(token);
  }

  @Get('config.js')
  @PublicRoute()
  @PublicSdkRoute(CONFIG_ROUTE)
  @Header('Content-Type', 'application/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=60')
  async script(@Param('token') token: string) {
    return remoteConfigScript(await this.remoteConfig.forToken(token));
  }
}
