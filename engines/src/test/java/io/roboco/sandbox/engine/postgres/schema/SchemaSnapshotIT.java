package io.roboco.sandbox.engine.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.RunningSandbox;
import io.roboco.sandbox.engine.SchemaDiff;
import io.roboco.sandbox.engine.SchemaDigest;
import io.roboco.sandbox.engine.postgres.PostgresEngine;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Schema snapshots and diffs against a real Postgres sandbox, read as the agent: an untouched schema diffs empty;
 * an added column and an added index are exactly what the diff reports; a changed column says what changed.
 */
class SchemaSnapshotIT {
    private static final String SCHEMA = """
            CREATE TABLE customers (id serial PRIMARY KEY, email text NOT NULL UNIQUE);
            CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                                 customer_id int NOT NULL REFERENCES customers (id),
                                 total numeric CHECK (total >= 0), note text DEFAULT 'none');
            CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100;
            CREATE FUNCTION order_count(c int) RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(*) FROM orders WHERE customer_id = c';
            CREATE SEQUENCE invoice_numbers START 1000;
            """;

    @ParameterizedTest
    @ValueSource(strings = {"roboco-sandbox/postgres:15", "roboco-sandbox/postgres:17"})
    void snapshotThenAColumnAndAnIndexDiffsExactlyThoseTwo(String image) throws Exception {
        EngineImages.requireLocal(image);
        PostgresEngine engine = new PostgresEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, image)) {
            engine.prepareAgent(sandbox.target);
            engine.activate(Features.require(engine, "pg_trgm"), sandbox.exec, sandbox.credentials, image);
            try (Connection agent = agent(sandbox);
                    Statement s = agent.createStatement()) {
                s.execute(SCHEMA);

                SchemaDigest before = SchemaReader.read(agent);
                assertThat(before.formatVersion()).isEqualTo(SchemaDigest.FORMAT_VERSION);
                assertThat(before.postgresVersion()).startsWith(image.substring(image.indexOf(':') + 1) + ".");
                assertThat(before.schemas()).containsExactly("public");
                assertThat(before.counts())
                        .containsEntry("table", 2)
                        .containsEntry("column", 6)
                        .containsEntry("view", 1)
                        .containsEntry("function", 1)
                        .containsEntry("sequence", 3)
                        .containsEntry("extension", 2)
                        .containsEntry("constraint", 5)
                        .containsEntry("index", 3);
                assertThat(before.objects())
                        .as("extension members are not the agent's objects")
                        .noneSatisfy((key, o) -> assertThat(o.name()).contains("similarity"));

                SchemaDigest untouched = SchemaReader.read(agent);
                assertThat(SchemaDiff.between(before, untouched).isEmpty()).isTrue();
                assertThat(untouched.digest()).isEqualTo(before.digest());

                s.execute("ALTER TABLE customers ADD COLUMN phone text");
                s.execute("CREATE INDEX orders_total_idx ON orders (total)");
                SchemaDiff diff = SchemaDiff.between(before, SchemaReader.read(agent));
                assertThat(diff.added())
                        .containsExactly(
                                new SchemaDiff.ObjectRef("column", "public.customers.phone"),
                                new SchemaDiff.ObjectRef("index", "public.orders_total_idx"));
                assertThat(diff.removed()).isEmpty();
                assertThat(diff.changed()).isEmpty();

                s.execute("DROP VIEW big_orders");
                s.execute("ALTER TABLE orders ALTER COLUMN note SET NOT NULL, ALTER COLUMN total TYPE numeric(12,2)");
                SchemaDiff later = SchemaDiff.between(before, SchemaReader.read(agent));
                assertThat(later.removed()).containsExactly(new SchemaDiff.ObjectRef("view", "public.big_orders"));
                assertThat(later.changed())
                        .extracting(SchemaDiff.Change::name)
                        .containsExactlyInAnyOrder("public.orders.note", "public.orders.total");
                assertThat(later.changed())
                        .filteredOn(c -> c.name().equals("public.orders.note"))
                        .singleElement()
                        .satisfies(c -> assertThat(c.attributes())
                                .containsOnlyKeys("nullable")
                                .containsEntry("nullable", new SchemaDiff.Values("yes", "no")));
                assertThat(later.changed())
                        .filteredOn(c -> c.name().equals("public.orders.total"))
                        .singleElement()
                        .satisfies(c -> assertThat(c.attributes().get("type"))
                                .isEqualTo(new SchemaDiff.Values("numeric", "numeric(12,2)")));
            }
        }
    }

    private static Connection agent(RunningSandbox sandbox) throws Exception {
        Credentials c = sandbox.credentials;
        return DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:" + sandbox.target.endpoint().port() + "/" + c.database(),
                c.user(),
                c.password());
    }
}
