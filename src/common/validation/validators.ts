import { registerDecorator, ValidationOptions } from 'class-validator';

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
