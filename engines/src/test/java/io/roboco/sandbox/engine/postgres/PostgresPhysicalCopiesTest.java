package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.KnownLengthInput;
import io.roboco.sandbox.engine.PhysicalCopies;
import io.roboco.sandbox.engine.SeedException;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The Postgres physical copy without a container: the wrappers keep the engine's spec and put the server behind a shell;
 * a restore renames the copy's role and database to the new sandbox's and sets verifiers, never a plaintext password;
 * its input has a known length; a copy of another major is refused naming both.
 */
class PostgresPhysicalCopiesTest {
    private static final PhysicalCopies COPIES =
            new PostgresEngine().physicalCopies().orElseThrow();
    private static final PhysicalCopies.Origin ORIGIN =
            new PhysicalCopies.Origin("15", "roboco_admin", "agent_old", "sandbox_old");
    private static final Credentials TARGET =
            new Credentials("roboco_admin", "admin-secret-1", "agent_new", "agent-secret-2", "sandbox_new");

    @Test
    void theWrappersKeepTheSpecAndRunTheServerBehindAShell() {
        ContainerSpec spec = new ContainerSpec(
                "img", Map.of("PGDATA", "/d"), List.of("postgres", "-c", "port=5"), "/var/lib/postgresql/data", 5);
        for (ContainerSpec wrapped : List.of(COPIES.held(spec), COPIES.supervised(spec))) {
            assertThat(wrapped.image()).isEqualTo("img");
            assertThat(wrapped.env()).isEqualTo(spec.env());
            assertThat(wrapped.dataDir()).isEqualTo(spec.dataDir());
            assertThat(wrapped.command().subList(0, 2)).containsExactly("bash", "-c");
            assertThat(wrapped.command().subList(4, 7)).containsExactly("postgres", "-c", "port=5");
        }
        assertThat(COPIES.held(spec).command().get(2)).contains(PostgresPhysicalCopies.COPIED);
        assertThat(COPIES.supervised(spec).command().get(2)).contains(PostgresPhysicalCopies.STOPPING);
    }

    @Test
    void heldFromAMountedCopyCopiesItInBeforeItWaitsAndTheRestoreThenStreamsNothing() throws Exception {
        ContainerSpec spec = new ContainerSpec(
                "img", Map.of("PGDATA", "/d"), List.of("postgres", "-c", "port=5"), "/var/lib/postgresql/data", 5);
        ContainerSpec held = COPIES.heldFrom(spec, "/roboco-template");
        assertThat(held.env()).containsAllEntriesOf(spec.env()).containsEntry("ROBOCO_COPY_FROM", "/roboco-template");
        assertThat(held.command()).isEqualTo(COPIES.held(spec).command());
        String script = held.command().get(2);
        assertThat(script.indexOf("cp -a \"$ROBOCO_COPY_FROM\"/."))
                .as("the copy is made before the restore is told the directory is ready")
                .isPositive()
                .isLessThan(script.indexOf(PostgresPhysicalCopies.AWAITING));

        AtomicReference<Map<String, String>> env = new AtomicReference<>();
        AtomicReference<InputStream> stdin = new AtomicReference<>();
        ContainerExec exec = new ContainerExec() {
            @Override
            public ExecResult exec(List<String> command, Map<String, String> e) {
                throw new AssertionError("not used");
            }

            @Override
            public ExecResult execAs(
                    String user, List<String> command, Map<String, String> e, InputStream in, OutputStream out) {
                env.set(e);
                stdin.set(in);
                return new ExecResult(0, "", "");
            }
        };
        COPIES.restore(exec, ORIGIN, TARGET, null, 123);
        assertThat(stdin.get()).as("nothing streamed").isNull();
        assertThat(env.get()).containsEntry("ROBOCO_COPY_IN_PLACE", "1").containsKey("ROBOCO_COPY_SQL");
    }

    @Test
    void theRenamesCarryVerifiersAndTheNewNamesOnly() {
        String sql = PostgresPhysicalCopies.renames(ORIGIN, TARGET);
        assertThat(sql.lines())
                .hasSize(4)
                .allSatisfy(line -> assertThat(line).endsWith(";"))
                .anySatisfy(line -> assertThat(line).startsWith("ALTER ROLE \"agent_old\" RENAME TO \"agent_new\""))
                .anySatisfy(
                        line -> assertThat(line).startsWith("ALTER DATABASE \"sandbox_old\" RENAME TO \"sandbox_new\""))
                .anySatisfy(line -> assertThat(line).startsWith("ALTER ROLE \"roboco_admin\" PASSWORD 'SCRAM-SHA-256$"))
                .anySatisfy(line -> assertThat(line).startsWith("ALTER ROLE \"agent_new\" PASSWORD 'SCRAM-SHA-256$"));
        assertThat(sql).doesNotContain("admin-secret-1").doesNotContain("agent-secret-2");
    }

    @Test
    void aRestoreRunsAsTheServersUserWithAnInputOfKnownLength() throws Exception {
        List<String> users = new ArrayList<>();
        AtomicReference<InputStream> input = new AtomicReference<>();
        AtomicReference<Map<String, String>> env = new AtomicReference<>();
        ContainerExec exec = recording(users, input, env, new ExecResult(0, "", ""));

        COPIES.restore(exec, ORIGIN, TARGET, new ByteArrayInputStream(new byte[10]), 10);

        assertThat(users).containsExactly("postgres");
        assertThat(input.get()).isInstanceOf(KnownLengthInput.class);
        assertThat(((KnownLengthInput) input.get()).length()).isEqualTo(10);
        assertThat(env.get()).containsEntry("ROBOCO_COPY_MAJOR", "15");
        assertThat(env.get().values()).noneMatch(v -> v.contains("admin-secret-1") || v.contains("agent-secret-2"));
    }

    @Test
    void aCopyOfAnotherMajorIsRefusedNamingBoth() {
        ContainerExec exec = recording(
                new ArrayList<>(),
                new AtomicReference<>(),
                new AtomicReference<>(),
                new ExecResult(
                        3, "", "the copy was written by PostgreSQL 15 and this image's server is PostgreSQL 17\n"));

        assertThatThrownBy(() -> COPIES.restore(exec, ORIGIN, TARGET, new ByteArrayInputStream(new byte[1]), 1))
                .isInstanceOf(SeedException.class)
                .hasMessage("the copy was written by PostgreSQL 15 and this image's server is PostgreSQL 17 (a physical"
                        + " copy starts only on the major that wrote it)");
    }

    private static ContainerExec recording(
            List<String> users,
            AtomicReference<InputStream> input,
            AtomicReference<Map<String, String>> env,
            ExecResult result) {
        return new ContainerExec() {
            @Override
            public ExecResult exec(List<String> command, Map<String, String> e) {
                throw new UnsupportedOperationException();
            }

            @Override
            public ExecResult execAs(
                    String user, List<String> command, Map<String, String> e, InputStream stdin, OutputStream stdout) {
                users.add(user);
                input.set(stdin);
                env.set(e);
                return result;
            }
        };
    }
}
