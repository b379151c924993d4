import { Module } from '@nestjs/common';
import { PersonsRepository } from './persons.repository';
import { PersonsService } from './persons.service';

@Module({
  providers: [PersonsRepository, PersonsService],
  exports: [PersonsService],
})
export class PersonsModule {}
