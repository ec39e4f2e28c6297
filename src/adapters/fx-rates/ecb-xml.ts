// The ECB's euro reference rates as XML (eurofxref-daily.xml, eurofxref-hist-90d.xml,
// eurofxref-hist.xml): gesmes:Envelope > Cube > Cube time="YYYY-MM-DD" > Cube currency="USD" rate="1.0866".
// The daily file has one day, the others one per business day, newest first.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isIsoDate } from '../../domain/dates.ts';
import { type Decimal, parseDecimal, type RateDay, type RateTable } from './rate-table.ts';

const SHAPE = 'gesmes:Envelope > Cube > Cube time > Cube currency rate';
const CURRENCY = /^[A-Z]{3}$/;

// Attribute values stay text (rates are read as exact decimals); entities are not expanded (the format
// has none, and expansion is where XML parsers are attacked); every Cube is a list, however many.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => name === 'Cube',
});

interface Node {
  readonly Cube?: readonly Node[];
  readonly '@time'?: string;
  readonly '@currency'?: string;
  readonly '@rate'?: string;
}

/** The problem with a source's text, said for its operator; the caller names the source. */
export class RateFormatError extends Error {
  override readonly name = 'RateFormatError';
}

/** The days of an ECB reference-rate file, oldest first. Throws RateFormatError saying what is wrong. */
export function parseEcbXml(text: string): RateTable {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new RateFormatError(
      `is not the ECB reference-rate XML: not well-formed (line ${valid.err.line}: ${valid.err.msg})`,
    );
  }
  const document = parser.parse(text) as { Envelope?: Node };
  const outer = document.Envelope?.Cube;
  if (document.Envelope === undefined || outer?.length !== 1) {
    throw new RateFormatError(`is not the ECB reference-rate XML (${SHAPE})`);
  }
  const days = (outer[0]!.Cube ?? []).map(dayOf);
  if (days.length === 0) throw new RateFormatError('lists no rates (no <Cube time="…"> day)');
  days.sort((a, b) => (a.date < b.date ? -1 : 1));
  for (let index = 1; index < days.length; index++) {
    if (days[index]!.date === days[index - 1]!.date)
      throw new RateFormatError(`lists the day ${days[index]!.date} twice`);
  }
  return days;
}

function dayOf(node: Node): RateDay {
  const date = node['@time'];
  if (date === undefined || !isIsoDate(date)) {
    throw new RateFormatError(`has a day whose time is not a date (YYYY-MM-DD): "${date ?? ''}"`);
  }
  const perEuro = new Map<string, Decimal>();
  for (const entry of node.Cube ?? []) {
    const currency = entry['@currency'] ?? '';
    if (!CURRENCY.test(currency) || currency === 'EUR') {
      throw new RateFormatError(
        `lists on ${date} "${currency}", which is not a currency code other than EUR (the base)`,
      );
    }
    const rate = parseDecimal(entry['@rate'] ?? '');
    if (rate === undefined) {
      throw new RateFormatError(
        `lists on ${date} a rate for ${currency} that is not a positive number: "${entry['@rate'] ?? ''}"`,
      );
    }
    if (perEuro.has(currency)) throw new RateFormatError(`lists ${currency} twice on ${date}`);
    perEuro.set(currency, rate);
  }
  if (perEuro.size === 0) throw new RateFormatError(`lists no rates on ${date}`);
  return { date, perEuro };
}
