-- `table`: the whole Hudi table made anew from the seed on every run.
{{ config(materialized='table', file_format='hudi', unique_key='id',
          options={'primaryKey': 'id', 'preCombineField': 'ts'}) }}
select id, rider, fare, ts from {{ ref('rides') }}
