/// Migration 8: a stream's history in epochs, so a node can tell that the hub lost versions
/// it had seen (docs/hub.md, "Epochs").
///
/// A database restored from an older copy takes up the version count where the copy left
/// it, so the versions it hands out next repeat ones that nodes already pulled, pushed into,
/// and acknowledged — in a history that is gone. Every physical restore, point-in-time
/// recovery, failover and crash recovery starts a new server, and so changes
/// `pg_postmaster_start_time()`. Each stream keeps the start time under which its current
/// epoch began (`server_started`); the first merge that finds another begins a new epoch at
/// its own version, with a random id, in its own transaction (the trigger below, so every
/// merge function takes part). A reader states the epoch of the last version it read; the
/// hub compares it with the epoch that holds that version now. A restart that lost nothing
/// begins an epoch after every version read so far, so no position is refused because of it.
extension HubSchema {
    static let streamEpochs = Migration(
        version: 8,
        statements: [
            "ALTER TABLE logbook_streams ADD COLUMN server_started timestamptz",
            // Epoch `epoch_id` holds the stream's versions from `first_version` up to the
            // next epoch's first version.
            """
            CREATE TABLE logbook_stream_epochs (
                stream_id bigint NOT NULL REFERENCES logbook_streams ON DELETE CASCADE,
                first_version bigint NOT NULL,
                epoch_id bigint NOT NULL CHECK (epoch_id > 0),
                began_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (stream_id, first_version)
            )
            """,
            // The epoch holding a version: the one that began last at or before it (null for
            // none). What readers', pushers' and acknowledgements' positions are checked by.
            """
            CREATE FUNCTION logbook_epoch_at(of_stream bigint, at_version bigint) RETURNS bigint
            LANGUAGE sql STABLE AS $at$
                SELECT epoch_id FROM logbook_stream_epochs
                WHERE stream_id = of_stream AND first_version <= at_version
                ORDER BY first_version DESC LIMIT 1
            $at$
            """,
            """
            CREATE FUNCTION logbook_begin_epoch() RETURNS trigger
            LANGUAGE plpgsql AS $epoch$
            BEGIN
                INSERT INTO logbook_stream_epochs (stream_id, first_version, epoch_id)
                VALUES (NEW.stream_id, NEW.hub_version,
                    floor(random() * 9007199254740991)::bigint + 1);
                NEW.server_started := pg_postmaster_start_time();
                RETURN NEW;
            END
            $epoch$
            """,
            // Only a merge moves `hub_version`; GC's updates of the stream's row leave it.
            """
            CREATE TRIGGER logbook_stream_epoch BEFORE UPDATE OF hub_version ON logbook_streams
            FOR EACH ROW
            WHEN (NEW.hub_version > OLD.hub_version
                AND NEW.server_started IS DISTINCT FROM pg_postmaster_start_time())
            EXECUTE FUNCTION logbook_begin_epoch()
            """,
            // Streams that merged before this migration: their versions so far form one
            // epoch, begun under the server that runs the migration.
            """
            INSERT INTO logbook_stream_epochs (stream_id, first_version, epoch_id)
            SELECT stream_id, 1, floor(random() * 9007199254740991)::bigint + 1
            FROM logbook_streams WHERE hub_version > 0
            """,
            """
            UPDATE logbook_streams SET server_started = pg_postmaster_start_time()
            WHERE hub_version > 0
            """,
        ])
}
