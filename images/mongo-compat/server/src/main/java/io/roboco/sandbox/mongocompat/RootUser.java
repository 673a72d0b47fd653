package io.roboco.sandbox.mongocompat;

import io.roboco.sandbox.mongocompat.auth.RoleGrant;
import io.roboco.sandbox.mongocompat.auth.User;
import io.roboco.sandbox.mongocompat.scram.ScramClient;
import io.roboco.sandbox.mongocompat.scram.ScramCredential;
import io.roboco.sandbox.mongocompat.scram.ScramException;
import io.roboco.sandbox.mongocompat.scram.ScramIterations;
import io.roboco.sandbox.mongocompat.scram.ScramMechanism;
import io.roboco.sandbox.mongocompat.scram.ScramServer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The official image's root user: {@code root} on {@code admin}, both SCRAM mechanisms. */
final class RootUser {
    private RootUser() {
    }

    static User of(String name, String password, ScramIterations iterations) {
        Map<ScramMechanism, ScramCredential> credentials = new EnumMap<>(ScramMechanism.class);
        for (ScramMechanism m : ScramMechanism.values()) {
            credentials.put(m, ScramCredential.forMongoUser(m, name, password, iterations.of(m)));
        }
        return new User(UUID.randomUUID(), name, "admin", List.of(new RoleGrant("root", "admin")), credentials, null);
    }

    /** One in-process SCRAM exchange per mechanism (the image build's class-data training run). */
    static void selfTest(String name, String password) throws ScramException {
        User user = of(name, password, ScramIterations.DEFAULTS);
        for (ScramMechanism m : ScramMechanism.values()) {
            ScramServer server = new ScramServer(m, n -> n.equals(name) ? user.credentials().get(m) : null);
            ScramClient client = new ScramClient(m, name, m.mongoPassword(name, password), ScramServer.randomNonce());
            client.verify(server.finish(client.respond(server.start(client.first()))));
        }
    }
}
