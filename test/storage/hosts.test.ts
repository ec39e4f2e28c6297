// libpq's multi-host DATABASE_URL (store/database/hosts.ts): the hosts in order, target_session_attrs,
// and one host's URL for the pg driver; bad URLs refused without showing the password.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDatabaseHosts } from '../../src/store/database/hosts.ts';

test('several hosts in order, default port, IPv6; one host URL each without target_session_attrs', () => {
  const parsed = parseDatabaseHosts(
    'postgres://gw:secret@db1:5432,db2,[::1]:5434/bank?target_session_attrs=read-write&sslmode=require',
  );
  assert.deepEqual(
    { hosts: parsed.hosts, target: parsed.target, urls: parsed.hosts.map(parsed.urlFor) },
    {
      hosts: [
        { host: 'db1', port: 5432 },
        { host: 'db2', port: 5432 },
        { host: '::1', port: 5434 },
      ],
      target: 'read-write',
      urls: [
        'postgres://gw:secret@db1:5432/bank?sslmode=require',
        'postgres://gw:secret@db2:5432/bank?sslmode=require',
        'postgres://gw:secret@[::1]:5434/bank?sslmode=require',
      ],
    },
  );
});

test('one host, no target: the target is unset (libpq: any)', () => {
  const parsed = parseDatabaseHosts('postgresql://u@localhost/db');
  assert.deepEqual(
    { hosts: parsed.hosts, target: parsed.target, url: parsed.urlFor(parsed.hosts[0]!) },
    {
      hosts: [{ host: 'localhost', port: 5432 }],
      target: undefined,
      url: 'postgresql://u@localhost:5432/db',
    },
  );
});

test('a bad host or target_session_attrs is refused, the password not shown', () => {
  assert.throws(() => parseDatabaseHosts('postgres://u:secret@db1:5432,:5433/bank'), {
    message:
      'host 2 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
  });
  assert.throws(() => parseDatabaseHosts('postgres://u:secret@db1:99999/bank'), {
    message:
      'host 1 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
  });
  assert.throws(() => parseDatabaseHosts('postgres://u:secret@db1,db2/bank?target_session_attrs=writable'), {
    message:
      'target_session_attrs must be one of any, read-write, read-only, primary, standby, prefer-standby',
  });
  // A password with an unencoded @, / or # moves the parse; the message repeats none of it.
  for (const url of [
    'postgres://u:p@ss@db1,db2/bank',
    'postgres://u:se/cret@db1,db2/bank',
    'postgres://u:pa#ss@db1/bank',
  ])
    assert.throws(() => parseDatabaseHosts(url), {
      message:
        'host 1 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
    });
});
