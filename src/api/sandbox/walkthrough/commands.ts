// The walkthrough's commands: curl + jq, with every value quoted so that bash and zsh read it back
// unchanged (a redirect URI with & or ', a name with spaces). Each uses shell variables that earlier
// steps set (BASE, CLIENT_ID, REDIRECT_URI and RUN in the first); --fail-with-body makes an error
// answer fail the step and still shows it.

export const CURL = 'curl -sS --fail-with-body';
export const JSON_BODY = `-H 'Content-Type: application/json'`;
const PSU_IP = `-H 'PSU-IP-Address: 192.0.2.1'`;

/** A single-quoted shell word: nothing inside is expanded; a ' closes, is escaped, and reopens. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A URL path segment that is also safe inside double quotes: percent-encoded, and the characters
 * encodeURIComponent leaves (! is history expansion in interactive bash) encoded too.
 */
export function pathSegment(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Lines of one command, continued with backslashes and indented. */
export function continued(...lines: readonly string[]): string {
  return lines.join(' \\\n  ');
}

/** A call whose answer is shown (pretty), one field of it kept in a variable. */
export function kept(variable: string, field: string, ...call: readonly string[]): string {
  return [
    `ANSWER=$(${continued(...call)})`,
    'echo "$ANSWER" | jq .',
    `${variable}=$(echo "$ANSWER" | jq -r ${field})`,
  ].join('\n');
}

/** A client-credentials token of a scope, into a variable. */
export function clientToken(variable: string, scope: string): string {
  return continued(
    `${variable}=$(${CURL} "$BASE/oauth2/token/1.0" -H 'Accept: application/json'`,
    `-d grant_type=client_credentials -d scope=${scope} --data-urlencode "client_id=$CLIENT_ID"`,
    '| jq -r .access_token)',
  );
}

/** The headers of an API call: the token, the app, and this step's request id. */
export function tppHeaders(token: string, step: string, ...more: string[]): string[] {
  return [
    `-H "Authorization: Bearer $${token}" -H "X-Gateway-Client-Id: $CLIENT_ID"`,
    [`-H "TPP-Request-ID: $RUN-${step}" -H "TPP-Transaction-ID: $RUN"`, ...more].join(' '),
  ];
}

/** A JSON body, one top-level field a line, quoted for the shell. */
export function jsonBody(body: Record<string, unknown>): string {
  const fields = Object.entries(body).map(
    ([name, value]) => `    ${JSON.stringify(name)}: ${JSON.stringify(value)}`,
  );
  return `-d ${shellQuote(`{\n${fields.join(',\n')}\n  }`)}`;
}

export function initiate(
  step: string,
  product: string,
  path: string,
  body: Record<string, unknown>,
  country = false,
  headers: readonly string[] = [],
) {
  return [
    `PRODUCT=${product}`,
    kept(
      'PAYMENT_ID',
      '.paymentId',
      `${CURL} "$BASE${path}/$PRODUCT"`,
      ...tppHeaders('TOKEN', step, PSU_IP, ...(country ? [`-H 'Country: SE'`] : []), ...headers),
      `${JSON_BODY} ${jsonBody(body)}`,
    ),
  ].join('\n');
}

/** The redirect authorization: the sandbox answers 302 at once, the code in the Location. */
export function authorize(scope: string): string {
  return [
    continued(
      `LOCATION=$(${CURL} -o /dev/null -w '%{redirect_url}' -G "$BASE/oauth2/authorize/1.0"`,
      `--data-urlencode response_type=code --data-urlencode "scope=${scope}"`,
      '--data-urlencode "client_id=$CLIENT_ID" --data-urlencode "redirect_uri=$REDIRECT_URI"',
      '--data-urlencode "state=$RUN")',
    ),
    'echo "$LOCATION"',
    `CODE=$(echo "$LOCATION" | sed -n 's/.*[?&]code=\\([^&]*\\).*/\\1/p')`,
  ].join('\n');
}

/** The code for the PSU's tokens; the answer is shown when it has more to see (a refresh token). */
export function exchangeCode(variable: string, scope: string, show: boolean): string {
  const call = [
    `${CURL} "$BASE/oauth2/token/1.0" -H 'Accept: application/json'`,
    `-d grant_type=authorization_code --data-urlencode "scope=${scope}"`,
    '--data-urlencode "client_id=$CLIENT_ID" --data-urlencode "code=$CODE"',
    '--data-urlencode "redirect_uri=$REDIRECT_URI"',
  ];
  return show
    ? kept(variable, '.access_token', ...call)
    : continued(`${variable}=$(${call[0]}`, ...call.slice(1, -1), `${call.at(-1)} | jq -r .access_token)`);
}

export function execute(step: string): string {
  return continued(
    `${CURL} -X PUT "$BASE/psd2/v1/payments/$PRODUCT/$PAYMENT_ID"`,
    ...tppHeaders('PSU_TOKEN', step, PSU_IP),
    '| jq .',
  );
}

export function status(step: string): string {
  return continued(
    `${CURL} "$BASE/psd2/v1/payments/$PRODUCT/$PAYMENT_ID/status" -H 'Country: SE'`,
    ...tppHeaders('TOKEN', step),
    '| jq .',
  );
}

export function read(step: string, path: string, filter = '.'): string {
  return continued(
    `${CURL} "$BASE${path}"`,
    ...tppHeaders('ACCOUNTS_TOKEN', step, PSU_IP),
    `| jq '${filter}'`,
  );
}
