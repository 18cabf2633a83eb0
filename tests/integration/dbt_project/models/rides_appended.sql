-- `incremental`, append: only rows newer than the table's latest are added.
{{ config(materialized='incremental', file_format='hudi', incremental_strategy='append') }}
select id, rider, fare, ts from {{ ref('rides') }}
{% if is_incremental() %} where ts > (select max(ts) from {{ this }}) {% endif %}
