-- `incremental`, insert_overwrite: each partition the run writes is replaced, the others stay.
{{ config(materialized='incremental', file_format='hudi', incremental_strategy='insert_overwrite',
          partition_by=['ts'], unique_key='id', options={'primaryKey': 'id'}) }}
select id, rider, fare, ts from {{ ref('rides') }}
