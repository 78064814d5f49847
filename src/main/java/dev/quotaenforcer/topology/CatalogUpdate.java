package dev.quotaenforcer.topology;

/**
 * One plan or key assignment after validation: the value to publish to the catalog (null for a
 * deletion), or the rejection that keeps it out.
 */
public record CatalogUpdate<V>(V value, Rejection rejection) {

    boolean accepted() {
        return rejection == null;
    }
}
