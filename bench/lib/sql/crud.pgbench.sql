-- The aircraft CRUD cycle as a pgbench script: the same four statements the application's
-- AircraftRepository sends, with the same parameters, one CRUD per pgbench transaction.
-- bench/run runs it as:
--   pgbench -n -c 50 -j 2 -T SECONDS -M prepared|extended -f THIS_FILE \
--     -D title1='Sukhoi Superjet 100' -D title2='Airbus A320' -D serial=95001 \
--     -D assembled=2008-05-19 -D added=2024-01-31
-- The id from INSERT … RETURNING feeds the next three statements through \gset.
\set n random(1, 1000000000000)
INSERT INTO aircraft (number, title, serial_number, assembly_date, added_at) VALUES ('PGB-' || :client_id || '-' || :n, :title1, :serial, :assembled, :added) RETURNING id AS crud_id, number, title, serial_number, assembly_date, added_at \gset
SELECT id, number, title, serial_number, assembly_date, added_at FROM aircraft WHERE id = :crud_id;
UPDATE aircraft SET number = 'PGB-' || :client_id || '-' || :n, title = :title2, serial_number = :serial, assembly_date = :assembled, added_at = :added WHERE id = :crud_id RETURNING id, number, title, serial_number, assembly_date, added_at;
DELETE FROM aircraft WHERE id = :crud_id;
