// The ECB's euro reference rates as the gateway quotes them: the daily file and the 90-day one, cross
// rates through the euro (exact decimals, half up, six decimals or six significant digits), the latest
// published day on or before the date asked, and a RangeError where the source has no rate.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LoadedRates, loadedRates } from '../../src/adapters/fx-rates/fx-rates.ts';
import { divide } from '../../src/adapters/fx-rates/rate-table.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
/** No refresh during these tests: an hour. */
const HOUR = 3_600_000;

function fromFixture(name: string): Promise<LoadedRates> {
  return loadedRates({ source: { kind: 'file', path: FIXTURES + name }, refreshMs: HOUR });
}

describe('the daily file (eurofxref-daily.xml)', () => {
  let rates: LoadedRates;
  before(async () => {
    rates = await fromFixture('eurofxref-daily.xml');
  });
  after(() => rates.close());

  test('its one day and every currency it lists, each per euro', () => {
    const { firstDay, lastDay } = rates.state();
    assert.deepEqual({ firstDay, lastDay }, { firstDay: '2024-05-17', lastDay: '2024-05-17' });
    const listed =
      'USD JPY BGN CZK DKK GBP HUF PLN RON SEK CHF ISK NOK TRY AUD BRL CAD CNY HKD IDR ILS INR KRW MXN MYR NZD PHP SGD THB ZAR'.split(
        ' ',
      );
    assert.deepEqual(
      listed.map((currency) => [currency, rates.quote(currency, 'EUR', '2024-05-17').exchangeRate]),
      [
        ['USD', '1.086600'],
        ['JPY', '169.110000'],
        ['BGN', '1.955800'],
        ['CZK', '24.714000'],
        ['DKK', '7.461000'],
        ['GBP', '0.855550'],
        ['HUF', '384.830000'],
        ['PLN', '4.266000'],
        ['RON', '4.976300'],
        ['SEK', '11.638500'],
        ['CHF', '0.987500'],
        ['ISK', '150.300000'],
        ['NOK', '11.620500'],
        ['TRY', '35.022100'],
        ['AUD', '1.624800'],
        ['BRL', '5.553300'],
        ['CAD', '1.478600'],
        ['CNY', '7.848600'],
        ['HKD', '8.477900'],
        ['IDR', '17352.970000'],
        ['ILS', '4.017800'],
        ['INR', '90.536500'],
        ['KRW', '1472.840000'],
        ['MXN', '18.052500'],
        ['MYR', '5.089300'],
        ['NZD', '1.775300'],
        ['PHP', '62.889000'],
        ['SGD', '1.462200'],
        ['THB', '39.409000'],
        ['ZAR', '19.721300'],
      ],
    );
    assert.deepEqual(rates.quote('IDR', 'EUR', '2024-05-19'), {
      sourceCurrency: 'IDR',
      targetCurrency: 'EUR',
      exchangeRate: '17352.970000',
      quotationDate: '2024-05-17',
    });
  });

  test('units of the source currency for one unit of the target, through the euro', () => {
    const quotes = [
      ['SEK', 'EUR'],
      ['USD', 'EUR'],
      ['EUR', 'USD'],
      // 11.6385 / 1.0866 = 10.7109331…: SEK per USD from SEK per euro and USD per euro.
      ['SEK', 'USD'],
      ['SEK', 'GBP'],
      ['SEK', 'CHF'],
      ['JPY', 'SEK'],
      ['SEK', 'NOK'],
    ].map(([source, target]) => [source, target, rates.quote(source!, target!, '2024-05-17').exchangeRate]);
    assert.deepEqual(quotes, [
      ['SEK', 'EUR', '11.638500'],
      ['USD', 'EUR', '1.086600'],
      ['EUR', 'USD', '0.920302'],
      ['SEK', 'USD', '10.710933'],
      ['SEK', 'GBP', '13.603530'],
      ['SEK', 'CHF', '11.785823'],
      ['JPY', 'SEK', '14.530223'],
      ['SEK', 'NOK', '1.001549'],
    ]);
  });

  test('a rate below 0.1 keeps six significant digits', () => {
    assert.deepEqual(
      [
        rates.quote('USD', 'SEK', '2024-05-17').exchangeRate,
        rates.quote('EUR', 'JPY', '2024-05-17').exchangeRate,
        rates.quote('GBP', 'JPY', '2024-05-17').exchangeRate,
        rates.quote('EUR', 'IDR', '2024-05-17').exchangeRate,
      ],
      ['0.0933625', '0.00591331', '0.00505913', '0.0000576270'],
    );
  });

  test('a currency against itself is 1 on any day, listed or not', () => {
    assert.deepEqual(rates.quote('SEK', 'SEK', '2000-01-01'), {
      sourceCurrency: 'SEK',
      targetCurrency: 'SEK',
      exchangeRate: '1.000000',
      quotationDate: '2000-01-01',
    });
    assert.equal(rates.quote('EUR', 'EUR', '2024-05-17').exchangeRate, '1.000000');
  });

  test('no rate before its day, for a currency it does not list, or on what is not a date', () => {
    const refusals = [
      ['SEK', 'USD', '2024-05-16'],
      ['SEK', 'XAU', '2024-05-17'],
      ['RUB', 'EUR', '2024-05-20'],
      ['SEK', 'USD', '17 May 2024'],
    ].map(([source, target, date]) => {
      try {
        return rates.quote(source!, target!, date!);
      } catch (error) {
        return [(error as Error).name, (error as Error).message];
      }
    });
    assert.deepEqual(refusals, [
      ['RangeError', 'no exchange rate for SEK/USD on 2024-05-16: the rates begin 2024-05-17'],
      ['RangeError', 'no exchange rate for SEK/XAU on 2024-05-17: the rates of 2024-05-17 list no XAU'],
      ['RangeError', 'no exchange rate for RUB/EUR on 2024-05-20: the rates of 2024-05-17 list no RUB'],
      ['RangeError', 'no exchange rate on "17 May 2024": not a date (YYYY-MM-DD)'],
    ]);
  });
});

describe('the 90-day file (several days, newest first)', () => {
  let rates: LoadedRates;
  before(async () => {
    rates = await fromFixture('eurofxref-hist-90d.xml');
  });
  after(() => rates.close());

  test('its days, oldest to newest', () => {
    const { firstDay, lastDay } = rates.state();
    assert.deepEqual({ firstDay, lastDay }, { firstDay: '2024-05-10', lastDay: '2024-05-17' });
  });

  test('the latest day published on or before the date: a weekend takes Friday, a later date the newest', () => {
    const quoted = ['2024-05-10', '2024-05-12', '2024-05-14', '2024-05-16', '2024-05-17', '2024-06-30'].map(
      (date) => {
        const exchange = rates.quote('SEK', 'USD', date);
        return [date, exchange.quotationDate, exchange.exchangeRate];
      },
    );
    assert.deepEqual(quoted, [
      ['2024-05-10', '2024-05-10', '10.824757'],
      ['2024-05-12', '2024-05-10', '10.824757'],
      ['2024-05-14', '2024-05-10', '10.824757'],
      ['2024-05-16', '2024-05-16', '10.704744'],
      ['2024-05-17', '2024-05-17', '10.710933'],
      ['2024-06-30', '2024-05-17', '10.710933'],
    ]);
  });

  test("a currency missing from that day's rates has none, though an earlier day lists it", () => {
    assert.equal(rates.quote('SEK', 'NOK', '2024-05-10').exchangeRate, '0.998247');
    assert.throws(() => rates.quote('SEK', 'NOK', '2024-05-15'), {
      name: 'RangeError',
      message: 'no exchange rate for SEK/NOK on 2024-05-15: the rates of 2024-05-15 list no NOK',
    });
    assert.throws(() => rates.quote('SEK', 'USD', '2024-05-09'), {
      name: 'RangeError',
      message: 'no exchange rate for SEK/USD on 2024-05-09: the rates begin 2024-05-10',
    });
  });
});

test('a cross rate is rounded half up, exactly', () => {
  const decimal = (text: string) => {
    const [whole, fraction = ''] = text.split('.');
    return { digits: BigInt(whole! + fraction), scale: fraction.length };
  };
  assert.deepEqual(
    [
      divide(decimal('1.0000005'), decimal('1')),
      divide(decimal('1.00000049'), decimal('1')),
      divide(decimal('2'), decimal('3')),
      divide(decimal('1'), decimal('8')),
      divide(decimal('0.0999999995'), decimal('1')),
    ],
    ['1.000001', '1.000000', '0.666667', '0.125000', '0.1000000'],
  );
});
