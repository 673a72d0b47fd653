package io.roboco.sandbox.store;

import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.testkit.SettingsStoreContract;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The settings contract against a real PostgreSQL 15 server in a throwaway container ({@link TestPostgres}: host
 * network, 127.0.0.1 only, data on tmpfs), one fresh database per test. Needs the Docker daemon and the local image
 * that ./scripts/test.sh builds; without them this fails, it does not skip.
 */
class PostgresSettingsStoreIT extends SettingsStoreContract {
    @RegisterExtension
    static final TestPostgres.PerClass POSTGRES = TestPostgres.perClass();

    private String url;

    @Override
    protected SettingsStore createStore() throws SQLException {
        url = POSTGRES.server().newDatabase();
        return POSTGRES.server().openStore(url);
    }

    @Override
    protected SettingsStore openSecond() {
        return POSTGRES.server().openStore(url);
    }

    @Override
    protected SettingsStore reopen() {
        return POSTGRES.server().openStore(url);
    }
}
