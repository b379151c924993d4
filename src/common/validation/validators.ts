import { registerDecorator, ValidateIf, ValidationOptions } from 'class-validator';
import timezoneData from 'tzdata';

/**
 * Every IANA time zone name, links included (`US/Pacific`, `Asia/Calcutta`, `GB`), as PostHog accepts them (its
 * choices are pytz's full list); `Intl.supportedValuesOf` lists canonical names only. Names the runtime cannot
 * use (the IANA placeholder `Factory`) are left out: luxon and ClickHouse read every other one.
 */
const TIME_ZONES = new Set<string>([
  ...Object.keys(timezoneData.zones).filter(usableZone),
  ...Intl.supportedValuesOf('timeZone'),
  'UTC',
]);

function usableZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone name such as `Europe/Paris`, `US/Pacific` or `UTC`. */
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
