<?php
// A script written for the fork runner, whose processes are copies of the worker.
echo \get_class(\Bobbin\Jobs\Jobs::shared());
