// Personal identity numbers (Swedish personnummer and samordningsnummer: YYYYMMDDNNNN, YYMMDD-NNNN,
// with or without the century and the separator) kept out of the log (issue 39): a PSU id typed into a
// path, or named by an error's message, is written as its first two digits and stars, so a line still
// shows that a number was there.
const PERSONAL_NUMBER = /(?<![\w-])(?:19|20)?\d{6}[-+]?\d{4}(?![\w-])/g;

export function maskPersonalNumbers(text: string): string {
  return text.replace(PERSONAL_NUMBER, (found) => `${found.slice(0, 2)}${'*'.repeat(found.length - 2)}`);
}
