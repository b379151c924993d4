import type { UserBasicDto } from './dto/user-basic.dto';
import type { UserEntity } from './user.entity';

export function userBasicJson(user: UserEntity): UserBasicDto {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
  };
}

/** `null` for a user that was deleted (the reference is kept as `ON DELETE SET NULL`). */
export function optionalUserBasicJson(user: UserEntity | null | undefined): UserBasicDto | null {
  return user ? userBasicJson(user) : null;
}
