import { IsString, MaxLength } from 'class-validator';

export class SignInDto {
  @IsString()
  @MaxLength(254)
  email: string;

  @IsString()
  @MaxLength(1000)
  password: string;
}

export class SignInReplyDto {
  success: boolean;
}
