export class CaptureReplyDto {
  /** Always 1: the events were received and durably enqueued. */
  status: number;
}
