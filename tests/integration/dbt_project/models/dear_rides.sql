-- `view`: a permanent view over a Hudi table, expanded by hudi-sql whenever it is read.
{{ config(materialized='view') }}
select id, rider, fare from {{ ref('rides_table') }} where fare > 8
