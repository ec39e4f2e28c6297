-- A TPP's certificate set (issue 37): what is issued over one of a TPP's certificates (tokens, refresh
-- tokens, decoupled sessions) is bound to the TPP and works over any certificate the TPP holds now. A
-- certificate the bank removes (a compromised key, a mistaken PUT) leaves the set at once; its row stays,
-- since it names the TPP of what was issued over it.
ALTER TABLE tpp_certificates ADD COLUMN removed_at timestamptz;
