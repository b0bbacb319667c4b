-- Version 7: reserved for a branch merged beside this one (its own
-- 0007 file replaces this one at the merge). Changes nothing.

SELECT 1;
