package io.roboco.sandbox.junit;

import java.util.Map;

/** One service of a leased sandbox: where it listens and the credentials of its own (non-superuser) account. */
public sealed interface ServiceSandbox permits LeasedService {
    /** The sandbox record's id ({@code sbx_…}) on the server; in local mode the embedded plugin's. */
    String sandboxId();

    /** The engine's name: {@code postgres}, {@code redis} or {@code mongo}. */
    String service();

    String host();

    int port();

    String user();

    String password();

    /** The full URL with credentials ({@code postgresql://…}, {@code redis://…}, {@code mongodb://…}). */
    String url();

    /** The env dict the server answered ({@code ROBOCO_TEST_DB_*}, {@code ROBOCO_TEST_REDIS_*}, {@code ROBOCO_TEST_MONGO_*}). */
    Map<String, String> env();
}
