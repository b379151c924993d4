import { Module } from '@nestjs/common';

/** BullMQ processors. Started only in the `worker` and `all` roles. */
@Module({})
export class WorkerModule {}
