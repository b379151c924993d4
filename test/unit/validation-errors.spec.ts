import 'reflect-metadata';
import { Type, plainToInstance } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ValidationError,
  validate,
} from 'class-validator';
import { ApiError } from '../../src/common/errors/api-error';
import { validationErrorsToApiError } from '../../src/common/validation/validation-errors';
import { createValidationPipe } from '../../src/common/validation/validation.pipe';

class NameDto {
  @IsString()
  @MaxLength(5)
  name: string;
}

class OptionalNameDto {
  @IsOptional()
  @IsString()
  @MaxLength(5)
  name?: string;
}

class CountDto {
  @IsInt()
  @Min(1)
  @Max(10)
  count: number;
}

class SignedDto {
  @IsNumber()
  @Min(-3.5)
  value: number;
}

class KindsDto {
  @IsOptional() @IsBoolean() flag?: boolean;
  @IsOptional() @IsNumber() ratio?: number;
  @IsOptional() @IsEmail() email?: string;
  @IsOptional() @IsObject() extra?: object;
  @IsOptional() @IsArray() tags?: unknown[];
  @IsOptional() @IsIn(['day', 'week']) interval?: string;
  @IsOptional() @IsString() @IsNotEmpty() title?: string;
  @IsOptional() @Matches(/^[a-z]+$/) slug?: string;
}

class UuidDto {
  @IsUUID()
  uuid: string;
}

class GroupDto {
  @IsString()
  key: string;
}

class FiltersDto {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => GroupDto)
  groups: GroupDto[];
}

class InsightDto {
  @IsString()
  name: string;

  @IsObject()
  @ValidateNested()
  @Type(() => FiltersDto)
  filters: FiltersDto;
}

async function errorsFor<T extends object>(dto: new () => T, plain: Record<string, unknown>): Promise<ValidationError[]> {
  const errors = await validate(plainToInstance(dto, plain));
  // A test that expects a failure must not silently pass on valid input.
  expect(errors.length).toBeGreaterThan(0);
  return errors;
}

async function apiErrorFor<T extends object>(dto: new () => T, plain: Record<string, unknown>): Promise<ApiError> {
  return validationErrorsToApiError(await errorsFor(dto, plain));
}

function validationBody(code: string, detail: string, attr: string | null) {
  return { type: 'validation_error', code, detail, attr };
}

describe(validationErrorsToApiError.name, () => {
  it('returns an ApiError with status 400', async () => {
    const error = await apiErrorFor(NameDto, {});
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
  });

  describe('missing and null values', () => {
    it('reports a missing required field as required', async () => {
      const error = await apiErrorFor(NameDto, {});
      expect(error.toBody()).toEqual(validationBody('required', 'This field is required.', 'name'));
    });

    it('reports an explicit undefined as required', async () => {
      const error = await apiErrorFor(NameDto, { name: undefined });
      expect(error.toBody()).toEqual(validationBody('required', 'This field is required.', 'name'));
    });

    it('reports null as may-not-be-null', async () => {
      const error = await apiErrorFor(NameDto, { name: null });
      expect(error.toBody()).toEqual(validationBody('null', 'This field may not be null.', 'name'));
    });

    it('reports a missing integer field as required', async () => {
      const error = await apiErrorFor(CountDto, {});
      expect(error.toBody()).toEqual(validationBody('required', 'This field is required.', 'count'));
    });

    it('produces no error for an absent optional field', async () => {
      expect(await validate(plainToInstance(OptionalNameDto, {}))).toEqual([]);
    });
  });

  describe('wrong types', () => {
    it('reports a number where a string is expected', async () => {
      const error = await apiErrorFor(OptionalNameDto, { name: 123 });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Not a valid string.', 'name'));
    });

    it('prefers the type error over the length error on the same field', async () => {
      const errors = await errorsFor(NameDto, { name: 123456 });
      // Precondition: the value really breaks both rules, otherwise the priority is not exercised.
      expect(Object.keys(errors[0].constraints ?? {}).sort()).toEqual(['isString', 'maxLength']);
      expect(validationErrorsToApiError(errors).toBody()).toEqual(validationBody('invalid_input', 'Not a valid string.', 'name'));
    });

    it('reports a non-integer where an integer is expected', async () => {
      const error = await apiErrorFor(CountDto, { count: 'five' });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'A valid integer is required.', 'count'));
    });

    it('reports a float where an integer is expected', async () => {
      const error = await apiErrorFor(CountDto, { count: 2.5 });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'A valid integer is required.', 'count'));
    });

    it('reports a non-number where a number is expected', async () => {
      const error = await apiErrorFor(KindsDto, { ratio: '0.5' });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'A valid number is required.', 'ratio'));
    });

    it('reports a non-boolean where a boolean is expected', async () => {
      const error = await apiErrorFor(KindsDto, { flag: 'yes' });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Must be a valid boolean.', 'flag'));
    });

    it('reports an invalid e-mail address', async () => {
      const error = await apiErrorFor(KindsDto, { email: 'not-an-email' });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Enter a valid email address.', 'email'));
    });

    it('reports a malformed UUID with DRF wording', async () => {
      const error = await apiErrorFor(UuidDto, { uuid: 'abc' });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Must be a valid UUID.', 'uuid'));
    });

    it('reports a non-object where an object is expected', async () => {
      const error = await apiErrorFor(KindsDto, { extra: 'x' });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Expected a dictionary of items.', 'extra'));
    });
  });

  describe('lists', () => {
    it.each([
      ['a string', 'abc', 'str'],
      ['an integer', 5, 'int'],
      ['a float', 1.5, 'float'],
      ['a boolean', true, 'bool'],
      ['an object', { a: 1 }, 'dict'],
    ])('names the Python type when a list receives %s', async (_label, tags, pythonType) => {
      const error = await apiErrorFor(KindsDto, { tags });
      expect(error.toBody()).toEqual(
        validationBody('not_a_list', `Expected a list of items but got type "${pythonType}".`, 'tags'),
      );
    });
  });

  describe('choices and blanks', () => {
    it('reports a value outside the allowed choices', async () => {
      const error = await apiErrorFor(KindsDto, { interval: 'month' });
      expect(error.toBody()).toEqual(validationBody('invalid_choice', '"month" is not a valid choice.', 'interval'));
    });

    it('reports an empty string where a non-empty one is required', async () => {
      const error = await apiErrorFor(KindsDto, { title: '' });
      expect(error.toBody()).toEqual(validationBody('blank', 'This field may not be blank.', 'title'));
    });
  });

  describe('ranges and lengths', () => {
    it('reports a string over the maximum length with the limit in the message', async () => {
      const error = await apiErrorFor(NameDto, { name: 'abcdef' });
      expect(error.toBody()).toEqual(validationBody('max_length', 'Ensure this field has no more than 5 characters.', 'name'));
    });

    it('reports a value under the minimum', async () => {
      const error = await apiErrorFor(CountDto, { count: 0 });
      expect(error.toBody()).toEqual(validationBody('min_value', 'Ensure this value is greater than or equal to 1.', 'count'));
    });

    it('reports a value over the maximum', async () => {
      const error = await apiErrorFor(CountDto, { count: 11 });
      expect(error.toBody()).toEqual(validationBody('max_value', 'Ensure this value is less than or equal to 10.', 'count'));
    });

    it('keeps the sign and decimals of a negative fractional bound', async () => {
      const error = await apiErrorFor(SignedDto, { value: -4 });
      expect(error.toBody()).toEqual(validationBody('min_value', 'Ensure this value is greater than or equal to -3.5.', 'value'));
    });
  });

  describe('nested objects', () => {
    it('joins the path of a nested field with "__"', async () => {
      const error = await apiErrorFor(InsightDto, { name: 'x', filters: {} });
      expect(error.toBody()).toEqual(validationBody('required', 'This field is required.', 'filters__groups'));
    });

    it('includes the list index in the path of a field inside a list item', async () => {
      const error = await apiErrorFor(InsightDto, { name: 'x', filters: { groups: [{ key: 'a' }, { key: 7 }] } });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Not a valid string.', 'filters__groups__1__key'));
    });

    it('reports a missing nested object by its own name', async () => {
      const error = await apiErrorFor(InsightDto, { name: 'x' });
      expect(error.toBody()).toEqual(validationBody('required', 'This field is required.', 'filters'));
    });

    it('reports a nested object of the wrong type by its own name', async () => {
      const error = await apiErrorFor(InsightDto, { name: 'x', filters: 'all' });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Expected a dictionary of items.', 'filters'));
    });

    it('reports the first failing field in declaration order', async () => {
      const error = await apiErrorFor(InsightDto, { name: 5, filters: {} });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Not a valid string.', 'name'));
    });

    it('descends into a nested object before looking at later fields', async () => {
      class Outer {
        @ValidateNested()
        @Type(() => GroupDto)
        first: GroupDto;

        @IsString()
        second: string;
      }
      const error = await apiErrorFor(Outer, { first: { key: 1 }, second: 2 });
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Not a valid string.', 'first__key'));
    });
  });

  describe('bodies that are not objects', () => {
    it.each([
      ['a list', ['x'], 'invalid_input', 'Invalid data. Expected a dictionary, but got list.'],
      ['a string', 'x', 'invalid_input', 'Invalid data. Expected a dictionary, but got str.'],
      ['an integer', 5, 'invalid_input', 'Invalid data. Expected a dictionary, but got int.'],
      ['a float', 5.5, 'invalid_input', 'Invalid data. Expected a dictionary, but got float.'],
      ['a boolean', true, 'invalid_input', 'Invalid data. Expected a dictionary, but got bool.'],
      ['null', null, 'null', 'No data provided'],
    ])("answers DRF's non-field error when the body is %s, before any required field", async (_label, body, code, detail) => {
      for (const metatype of [OptionalNameDto, NameDto]) {
        const pipe = createValidationPipe();
        const error = await pipe.transform(body, { type: 'body', metatype }).then(
          () => null,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).toBody()).toEqual(validationBody(code, detail, null));
      }
    });

    it('reads no body at all as an object without fields', async () => {
      const error = await createValidationPipe().transform(undefined, { type: 'body', metatype: NameDto }).catch((thrown: ApiError) => thrown);
      expect((error as ApiError).toBody()).toEqual(validationBody('required', 'This field is required.', 'name'));
    });

    it('leaves bodies the route does not type (unknown) to the route', async () => {
      const pipe = createValidationPipe();
      expect(await pipe.transform(['x'], { type: 'body', metatype: Object })).toEqual(['x']);
    });
  });

  describe('fallbacks', () => {
    it("uses class-validator's own message for a constraint without a DRF equivalent", async () => {
      const error = await apiErrorFor(KindsDto, { slug: 'Not A Slug' });
      expect(error.toBody()).toEqual(
        validationBody('invalid_input', 'slug must match /^[a-z]+$/ regular expression', 'slug'),
      );
    });

    it('reports a generic invalid input for an empty error list', () => {
      const error = validationErrorsToApiError([]);
      expect(error.status).toBe(400);
      expect(error.toBody()).toEqual(validationBody('invalid_input', 'Invalid input.', null));
    });

    it('reports a generic invalid input when no error carries a constraint', () => {
      const bare = Object.assign(new ValidationError(), { property: 'name', value: 'x', constraints: {}, children: [] });
      expect(validationErrorsToApiError([bare]).toBody()).toEqual(validationBody('invalid_input', 'Invalid input.', null));
    });
  });
});
