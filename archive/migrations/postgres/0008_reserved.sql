-- Version 8: reserved for a branch merged beside this one (its own
-- 0008 file replaces this one at the merge). Changes nothing.

SELECT 1;
