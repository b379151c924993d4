import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { MetricsTokenAuth } from '../../common/auth/auth.decorator';
import { MetricsService } from './metrics.service';

@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @MetricsTokenAuth()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  render() {
    return this.metrics.render();
  }
}
