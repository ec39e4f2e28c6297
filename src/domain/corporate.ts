// The corporate headers of a request: PSU-Corporate-ID (a 10-digit organisation number) and
// PSU-Corporate-ID-Type (BANK) go together, and name the corporate customer the PSU acts for.
import { ApiError, type TppMessage } from './errors.ts';

export interface CorporateHeaders {
  readonly id: string | undefined;
  readonly type: string | undefined;
}

const CORPORATE_ID = /^\d{10}$/;

/** Both headers, well-formed, when the path is for corporates or either header is sent. */
export function checkCorporateHeaders(corporate: CorporateHeaders, required: boolean): void {
  const messages: TppMessage[] = [];
  if (required || corporate.id !== undefined || corporate.type !== undefined) {
    if (corporate.id === undefined) {
      messages.push({
        code: 'FORMAT_ERROR',
        path: 'PSU-Corporate-ID',
        text: 'header PSU-Corporate-ID is required',
      });
    } else if (!CORPORATE_ID.test(corporate.id)) {
      messages.push({
        code: 'FORMAT_ERROR',
        path: 'PSU-Corporate-ID',
        text: 'PSU-Corporate-ID must be a 10-digit organisation number',
      });
    }
    if (corporate.type === undefined) {
      messages.push({
        code: 'FORMAT_ERROR',
        path: 'PSU-Corporate-ID-Type',
        text: 'header PSU-Corporate-ID-Type is required',
      });
    } else if (corporate.type !== 'BANK') {
      messages.push({
        code: 'FORMAT_ERROR',
        path: 'PSU-Corporate-ID-Type',
        text: 'PSU-Corporate-ID-Type must be BANK',
      });
    }
  }
  if (messages.length > 0) throw new ApiError(messages);
}
