import type { INestApplicationContext } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RuntimeOptions } from '../app.module';
import { createHttpApp } from './http-app';
import { provision } from './lifecycle';

/** The `api` and `all` roles in one process: the HTTP application, listening once the database is provisioned. */
export async function startApi(runtime: RuntimeOptions, logger: Logger): Promise<INestApplicationContext> {
  const { config } = runtime;
  const app = await createHttpApp(runtime, logger);
  await provision(app, config);
  await app.listen({ port: config.http.port, host: config.http.host });
  return app;
}
