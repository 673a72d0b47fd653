package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.roboco.sandbox.server.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class SecretSafeLoggingTest {
    @Test
    void theShippedLoggingConfigurationStarts() {
        assertThatCode(SecretSafeLogging::check).doesNotThrowAnyException();
    }

    @Test
    void aLeakyLoggerAtDebugRefusesTheStartNamingItAndTheFix() {
        for (String name : SecretSafeLogging.LEAKY) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            Level before = logger.getLevel();
            logger.setLevel(Level.DEBUG);
            try {
                assertThatThrownBy(SecretSafeLogging::check)
                        .isInstanceOf(ConfigException.class)
                        .hasMessageContaining(name + " is at DEBUG")
                        .hasMessageContaining("set it to INFO or above");
            } finally {
                logger.setLevel(before);
            }
        }
        assertThatCode(SecretSafeLogging::check).as("levels restored").doesNotThrowAnyException();
    }

    @Test
    void aParentAtDebugCountsForTheChildrenItCovers() {
        Logger apache = (Logger) LoggerFactory.getLogger("org.apache.hc");
        Level before = apache.getLevel();
        apache.setLevel(Level.TRACE);
        try {
            assertThatThrownBy(SecretSafeLogging::check)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(
                            "org.apache.hc.client5.http.wire, org.apache.hc.client5.http.headers are at DEBUG");
        } finally {
            apache.setLevel(before);
        }
    }

    @Test
    void ourOwnCodeAtDebugIsFine() {
        Logger ours = (Logger) LoggerFactory.getLogger("io.roboco.sandbox");
        Level before = ours.getLevel();
        ours.setLevel(Level.DEBUG);
        try {
            assertThatCode(SecretSafeLogging::check).doesNotThrowAnyException();
            assertThat(ours.isDebugEnabled()).isTrue();
        } finally {
            ours.setLevel(before);
        }
    }
}
