-- The aircraft application's only table (shared/contracts/aircraft-api.md). Applied by the demo,
-- test and benchmark scripts, never per request.
CREATE TABLE IF NOT EXISTS aircraft (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    number        text   NOT NULL UNIQUE,
    title         text   NOT NULL,
    serial_number text   NOT NULL,
    assembly_date date   NOT NULL,
    added_at      date   NOT NULL
);
