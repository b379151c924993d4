import { Module } from '@nestjs/common';
import { PersonalApiKeysController } from './personal-api-keys.controller';
import { PersonalApiKeysRepository } from './personal-api-keys.repository';
import { PersonalApiKeysService } from './personal-api-keys.service';

@Module({
  controllers: [PersonalApiKeysController],
  providers: [PersonalApiKeysRepository, PersonalApiKeysService],
  exports: [PersonalApiKeysService],
})
export class PersonalApiKeysModule {}
