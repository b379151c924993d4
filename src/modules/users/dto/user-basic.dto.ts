/** PostHog's UserBasic serializer: how a user is embedded in other resources (`created_by`, …). */
export class UserBasicDto {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
}
