package dev.quotaenforcer.topology;

/** One plan or key assignment after validation: what to publish to the catalog, or the rejection that keeps it out. */
public sealed interface CatalogUpdate<V> permits CatalogUpdate.Accepted, CatalogUpdate.Rejected {

    /** A valid plan or assignment: the value to publish to the catalog, null for a deletion. */
    record Accepted<V>(V value) implements CatalogUpdate<V> {
    }

    /** An invalid one, for the dead-letter topic; the catalog keeps what it holds. */
    record Rejected<V>(Rejection rejection) implements CatalogUpdate<V> {
    }
}
