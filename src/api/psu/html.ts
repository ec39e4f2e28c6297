// HTML escaping for every value put into a page (never trust a name, an account or a message); the
// escaping itself is domain/text.ts's (the published availability report uses it too).
import { escapeHtml } from '../../domain/text.ts';

export { escapeHtml };

/** A template tag that escapes every interpolated value unless it is already Html. */
export class Html {
  constructor(readonly text: string) {}
}

export function html(
  strings: TemplateStringsArray,
  ...values: readonly (string | Html | undefined | null)[]
): Html {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += (value instanceof Html ? value.text : escapeHtml(value ?? '')) + strings[index + 1]!;
  });
  return new Html(text);
}
