package io.roboco.sandbox.store;

import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.SettingsStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * A second server process for {@link H2SettingsStoreTest}: opens the embedded store in {@code args[0]}
 * and, with {@code append}, appends records forever, printing {@code ACK n} after each one returns.
 */
public final class EmbeddedStoreChild {
    private EmbeddedStoreChild() {}

    public static void main(String[] args) {
        try (SettingsStore store = JdbcSettingsStore.embedded(Path.of(args[0]))) {
            System.out.println("OPENED");
            System.out.flush();
            for (long n = 0; args.length > 1; n++) {
                store.append(
                        new AuditRecord(Instant.now(), "child", "p", "request_sandbox", "granted", "", List.of(), n));
                System.out.println("ACK " + n);
                System.out.flush();
            }
        } catch (RuntimeException e) {
            System.out.println("FAILED " + e.getMessage());
        }
    }
}
