-- `incremental`, merge: new and changed rides merged into the Hudi table by key.
{{ config(materialized='incremental', file_format='hudi', incremental_strategy='merge', unique_key='id',
          options={'primaryKey': 'id', 'preCombineField': 'ts'}) }}
select id, rider, fare, ts from {{ ref('rides') }}
{% if is_incremental() %} where ts >= (select max(ts) from {{ this }}) {% endif %}
