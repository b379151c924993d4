import { Module } from '@nestjs/common';
import { DecideModule } from '../decide/decide.module';
import { ProjectsModule } from '../projects/projects.module';
import { RemoteConfigController } from './remote-config.controller';
import { RemoteConfigService } from './remote-config.service';

@Module({
  imports: [ProjectsModule, DecideModule],
  controllers: [RemoteConfigController],
  providers: [RemoteConfigService],
})
export class RemoteConfigModule {}
