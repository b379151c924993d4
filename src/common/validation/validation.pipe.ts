import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { isJsonObject } from '../json/json-object';
import { bodyNotAnObject, validationErrorsToApiError } from './validation-errors';

/** DRF's serializer checks the body is an object before any field; Nest's pipe would list the DTO's fields. */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // No body at all reads as no fields, as DRF's empty request.data does.
    if (metadata.type === 'body' && value !== undefined && this.toValidate(metadata) && !isJsonObject(value)) throw bodyNotAnObject(value);
    return super.transform(value, metadata);
  }
}

/** The single global pipe: strips unknown fields, transforms to DTO classes, fails in PostHog's shape. */
export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    whitelist: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    stopAtFirstError: false,
    exceptionFactory: validationErrorsToApiError,
  });
}
