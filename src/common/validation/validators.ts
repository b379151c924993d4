import { registerDecorator, ValidateIf, ValidationOptions } from 'class-validator';

const TIME_ZONES = new Set<string>([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/** An IANA time zone name such as `Europe/Paris` or `UTC`. */
export function IsTimeZone(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isIn',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && TIME_ZONES.has(value),
        defaultMessage: () => `${propertyName} must be a time zone`,
      },
    });
}

/**
 * May be left out, but not sent as null. (`IsOptional` also lets null through, which would reach
 * NOT NULL columns; DRF answers "This field may not be null." instead.)
 */
export function OptionalNonNull(options?: ValidationOptions) {
  return ValidateIf((_object, value) => value !== undefined, options);
}
