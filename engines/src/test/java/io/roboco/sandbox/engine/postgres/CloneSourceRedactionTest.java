package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A clone failure reaches the agent: it names no source host, port, user, database, password or address. */
class CloneSourceRedactionTest {
    @Test
    void whatTheToolsPrintAboutTheSourceIsTakenOut() throws Exception {
        PostgresSeeds.Source source =
                PostgresSeeds.Source.parse("postgresql://shop_owner:s3cret-pw@db.internal.example:6543/shopdb");
        String printed =
                "pg_dump: error: connection to server at \"db.internal.example\" (10.20.30.40), port 6543 failed:"
                        + " FATAL:  password authentication failed for user \"shop_owner\" (database shopdb, password s3cret-pw)"
                        + " | also at (fd00::1:2)";

        String shown = source.redact(printed);

        assertThat(shown)
                .doesNotContain(
                        "db.internal.example", "10.20.30.40", "6543", "shop_owner", "shopdb", "s3cret-pw", "fd00::1:2")
                .contains(
                        "<source host>", "<source user>", "<address>", "port <port>", "password authentication failed");
    }
}
