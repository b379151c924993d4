import { ValidationPipe } from '@nestjs/common';
import { validationErrorsToApiError } from './validation-errors';

/** The single global pipe: strips unknown fields, transforms to DTO classes, fails in PostHog's shape. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: validationErrorsToApiError,
  });
}
