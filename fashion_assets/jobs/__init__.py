"""Op-based Dagster jobs: maintenance work that materializes no asset (media cleanup, the
store heal)."""
