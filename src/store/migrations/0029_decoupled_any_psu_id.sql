-- A decoupled session is for the personal number the TPP names, customer of the bank or not: the init
-- answers alike for both, and whether the PSU is the bank's customer is decided when they have signed
-- with their own e-ID (issue 37). The session's PSU therefore references no PSU row; the tokens a
-- completed session issues keep theirs. The constraint's name is the one PostgreSQL generates (15 to
-- 18, and PGlite).
ALTER TABLE decoupled_sessions DROP CONSTRAINT IF EXISTS decoupled_sessions_psu_id_fkey;
