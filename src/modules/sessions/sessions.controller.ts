import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PublicRoute } from '../../common/auth/auth.decorator';
import { CSRF_HEADER, sessionCookies, sessionTokenOf } from './session-cookies';
import { SessionsService } from './sessions.service';
import { SignInDto, SignInReplyDto } from './dto/sign-in.dto';

/** Sign-in and sign-out for the console: a session cookie that the management API accepts as the user. */
@ApiTags('sessions')
@Controller('api')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  /** E-mail and password; sets `sessionid` and `csrftoken`. Five failures in 15 minutes lock the e-mail for the rest of them. */
  @Post('login')
  @HttpCode(200)
  @PublicRoute()
  @ApiOkResponse({ type: SignInReplyDto })
  async signIn(@Body() body: SignInDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SignInReplyDto> {
    const session = await this.sessions.signIn(body.email, body.password, request.ip);
    reply.header('set-cookie', sessionCookies(request, session));
    return { success: true };
  }

  /** Ends the session the cookie names (its writes need the CSRF token like any other) and clears both cookies. */
  @Post('logout')
  @HttpCode(200)
  @PublicRoute()
  @ApiOkResponse({ type: SignInReplyDto })
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SignInReplyDto> {
    const token = sessionTokenOf(request);
    if (token) await this.sessions.signOut(token, request.headers[CSRF_HEADER]);
    reply.header('set-cookie', sessionCookies(request, null));
    return { success: true };
  }
}
