-- The aircraft table on MySQL/MariaDB (shared/contracts/aircraft-api.md), the twin of
-- schema.sql. Text compares byte for byte and without padding (utf8mb4_nopad_bin), as
-- PostgreSQL's text does: "A1" and "a1", or "A1" and "A1 ", are different numbers.
CREATE TABLE IF NOT EXISTS aircraft (
    id            bigint       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    number        varchar(32)  NOT NULL UNIQUE,
    title         varchar(200) NOT NULL,
    serial_number varchar(64)  NOT NULL,
    assembly_date date         NOT NULL,
    added_at      date         NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
