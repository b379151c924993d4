import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { RemoteConfigController } from './remote-config.controller';
import { RemoteConfigService } from './remote-config.service';

@Module({
  imports: [ProjectsModule],
  controllers: [RemoteConfigController],
  providers: [RemoteConfigService],
})
export class RemoteConfigModule {}
