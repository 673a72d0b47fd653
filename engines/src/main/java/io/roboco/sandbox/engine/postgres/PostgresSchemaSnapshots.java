package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SchemaDigest;
import io.roboco.sandbox.engine.SchemaSnapshots;
import io.roboco.sandbox.engine.postgres.schema.SchemaReader;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Postgres {@link SchemaSnapshots}: schema digests of a sandbox database ({@link SchemaReader}), read on the agent's own
 * credential (what the agent can see is what it owns).
 */
final class PostgresSchemaSnapshots implements SchemaSnapshots {
    @Override
    public SchemaDigest snapshot(ProbeTarget target) throws SQLException {
        try (Connection agent = PostgresEngine.connect(target, Login.AGENT)) {
            return SchemaReader.read(agent);
        }
    }
}
