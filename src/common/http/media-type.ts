/** The media type of a Content-Type header, lower-cased, without parameters; empty when there is none. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}
