-- Version 7 is another change's (the notification claims); this file
-- holds its number so that the numbers run on where that change is not
-- merged yet. It changes nothing; that change's 0007 file replaces it.

SELECT 1;
