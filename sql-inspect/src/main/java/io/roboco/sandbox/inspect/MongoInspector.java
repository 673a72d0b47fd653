package io.roboco.sandbox.inspect;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code describe_sandbox} for a MongoDB sandbox: its collections (the first {@value #MAX_COLLECTIONS}) and their document counts. Reads no documents. */
public final class MongoInspector {
    /** Collections described per call (names and counts); more are left out, so a database of a million stays one bounded answer. */
    static final int MAX_COLLECTIONS = 1000;

    private MongoInspector() {}

    /** {@code connectionString}: the URL the agent was given (or one without credentials for an unauthenticated stand-in). */
    public static Outcome<MongoDescription> describe(String connectionString, String database) {
        String tag = Untrusted.newTag();
        MongoClientSettings settings = MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(connectionString))
                .applyToClusterSettings(b -> b.serverSelectionTimeout(5, TimeUnit.SECONDS))
                .applyToSocketSettings(
                        b -> b.connectTimeout(5, TimeUnit.SECONDS).readTimeout(10, TimeUnit.SECONDS))
                .applicationName("roboco-sandbox-inspect")
                .build();
        try (MongoClient client = MongoClients.create(settings)) {
            MongoDatabase db = client.getDatabase(database);
            List<MongoDescription.Collection> collections = new ArrayList<>();
            long total = 0;
            for (String name : db.listCollectionNames()) {
                if (collections.size() == MAX_COLLECTIONS) {
                    break;
                }
                long count = db.getCollection(name).countDocuments();
                total += count;
                collections.add(new MongoDescription.Collection(name, count));
            }
            collections.sort(Comparator.comparing(MongoDescription.Collection::name));
            return new Outcome.Ok<>(new MongoDescription(
                    Untrusted.of(tag, new MongoDescription.Facts(database, collections)), collections.size(), total));
        } catch (MongoException e) {
            return new Outcome.Failed<>(
                    "the sandbox's MongoDB did not answer as expected; retry shortly (request_sandbox re-checks a sandbox "
                            + "and replaces a dead one)",
                    null,
                    Untrusted.of(tag, String.valueOf(e.getMessage())),
                    true);
        }
    }
}
