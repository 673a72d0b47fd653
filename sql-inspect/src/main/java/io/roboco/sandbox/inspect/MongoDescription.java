package io.roboco.sandbox.inspect;

import java.util.List;

/** {@code describe_sandbox} for MongoDB: the database's collections and their document counts. */
public record MongoDescription(Untrusted<Facts> data, int collections, long documents) implements InspectionResult {

    public record Facts(String database, List<Collection> collections) {}

    public record Collection(String name, long documents) {}

    @Override
    public String summary() {
        return collections + (collections == 1 ? " collection, " : " collections, ") + documents + " documents";
    }
}
