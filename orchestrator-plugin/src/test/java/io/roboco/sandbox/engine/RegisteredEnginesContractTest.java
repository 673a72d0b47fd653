package io.roboco.sandbox.engine;

import io.roboco.sandbox.testkit.EngineContract;
import org.junit.jupiter.api.Nested;

/**
 * testkit's {@link EngineContract} against every engine of {@link EngineRegistry#defaults()}. It lives here,
 * not in the engines module, because testkit depends on that module.
 */
class RegisteredEnginesContractTest {
    @Nested
    class Postgres extends EngineContract {
        @Override
        protected Engine engine() {
            return EngineRegistry.defaults().require("postgres");
        }
    }

    @Nested
    class Redis extends EngineContract {
        @Override
        protected Engine engine() {
            return EngineRegistry.defaults().require("redis");
        }
    }

    @Nested
    class Mongo extends EngineContract {
        @Override
        protected Engine engine() {
            return EngineRegistry.defaults().require("mongo");
        }
    }
}
