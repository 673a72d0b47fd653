package io.roboco.sandbox.engine.postgres;

import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.postgres.schema.SchemaDigest;
import io.roboco.sandbox.engine.postgres.schema.SchemaReader;
import java.sql.Connection;
import java.sql.SQLException;

/** Schema digests of a sandbox database, read on the agent's own credential (what the agent can see is what it owns). */
public final class PostgresSchemas {
    private PostgresSchemas() {}

    public static SchemaDigest snapshot(ProbeTarget target) throws SQLException {
        try (Connection agent = PostgresEngine.connect(target, Login.AGENT)) {
            return SchemaReader.read(agent);
        }
    }
}
